/**
 * Run, Check (exercises only), Stop and Reset, with the keyboard hint. Only Stop works while code runs.
 */
import { el } from "../dom.js";

/**
 * @param {{exercise: boolean, commands: {run: Function, check: Function, stop: Function, reset: Function}}} options
 */
export function createToolbarView({ exercise, commands }) {
  const dom = el("div", { class: "tl-toolbar" });
  const button = (label, cls, title) => el("button", { type: "button", class: `md-button ${cls}`, title }, label);
  const buttons = {
    run: button("Run", "tl-run", "Run your code (Shift+Enter)"),
    check: button("Check", "tl-check md-button--primary", "Run the hidden tests (Ctrl/⌘+Enter)"),
    stop: button("Stop", "tl-stop", "Stop the running code"),
    reset: button("Reset", "tl-reset", "Put the starter code back (undo with Ctrl/⌘+Z)"),
  };
  const shown = exercise ? ["run", "check", "stop", "reset"] : ["run", "stop", "reset"];
  dom.append(...shown.map((name) => buttons[name]), el("span", { class: "tl-hint" },
    exercise ? "Ctrl/⌘+Enter checks · Shift+Enter runs · Esc then Tab leaves the editor"
      : "Ctrl/⌘+Enter runs · Esc then Tab leaves the editor"));
  const listeners = shown.map((name) => {
    const fn = () => commands[name]();
    buttons[name].addEventListener("click", fn);
    return () => buttons[name].removeEventListener("click", fn);
  });
  return {
    dom,
    buttons,
    update(state, prev) {
      if (prev && state.busy === prev.busy) return;
      const busy = Boolean(state.busy);
      buttons.run.disabled = busy;
      buttons.check.disabled = busy;
      buttons.reset.disabled = busy;
      buttons.stop.disabled = !busy;
    },
    destroy() {
      for (const off of listeners) off();
    },
  };
}
