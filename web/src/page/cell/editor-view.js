/**
 * The editor inside a cell. The editor holds the text while the learner types and reports each change (the
 * `edited` action); when the state's code changes for another reason (Reset, a conflict resolved), the view
 * puts it in the editor as one undoable change.
 */
import { el } from "../dom.js";

/**
 * @param {{createEditor: Function, code: string, label: string, onChange: (code: string) => void,
 *          onPrimary: () => void, onSecondary: () => void}} options  createEditor: editor.js's, or a test's fake
 */
export function createEditorView({ createEditor, code, label, onChange, onPrimary, onSecondary }) {
  const dom = el("div", { class: "tl-editor" });
  const editor = createEditor({ parent: dom, doc: code, label, onChange, onPrimary, onSecondary });
  return {
    dom,
    editor,
    update(state) {
      if (state.code !== editor.getCode()) editor.setCode(state.code);
    },
    destroy() {
      editor.destroy?.();
    },
  };
}
