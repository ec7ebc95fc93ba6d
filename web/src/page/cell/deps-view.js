/**
 * What a module needs (dependencies.js's verdict) and the box to use the reference implementations instead.
 * Built once and updated in place, so the checkbox stays where the learner clicked it.
 */
import { el } from "../dom.js";

/** @param {{onToggle: (checked: boolean) => void}} options */
export function createDepsView({ onToggle }) {
  const dom = el("div", { class: "tl-deps", hidden: "" });
  const text = el("p", { class: "tl-needs" });
  const box = el("input", { type: "checkbox", class: "tl-refdeps" });
  const label = el("label");
  const labelText = label.ownerDocument.createTextNode("");
  label.append(box, " ", labelText);
  dom.append(text, label);
  const onChange = () => onToggle(box.checked);
  box.addEventListener("change", onChange);
  return {
    dom,
    box,
    update(state, prev) {
      const gate = state.deps;
      if (prev && gate === prev.deps) return;
      dom.hidden = !gate || !gate.text;
      if (dom.hidden) return;
      text.textContent = gate.text;
      box.checked = gate.refDeps;
      labelText.textContent = gate.label;
    },
    destroy() {
      box.removeEventListener("change", onChange);
    },
  };
}
