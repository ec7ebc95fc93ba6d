/**
 * The words shown after a multiple-choice answer: the verdict, then the author's feedback. An author who starts
 * the feedback with the verdict itself ("Correct. …") would otherwise be shown "Correct: Correct. …".
 */
const LEADS = { true: /^\s*(correct|right|yes)\b[.:!,;]?\s*/i, false: /^\s*(not quite|incorrect|wrong|no)\b[.:!,;]?\s*/i };

/**
 * @param {boolean} correct whether the chosen option is the right one
 * @param {string} text the option's feedback from the manifest
 * @returns {string}
 */
export function choiceFeedback(correct, text) {
  const verdict = correct ? "Correct" : "Not quite";
  const rest = String(text || "").replace(LEADS[correct], "");
  return rest ? `${verdict}: ${rest.charAt(0).toUpperCase()}${rest.slice(1)}` : `${verdict}.`;
}
