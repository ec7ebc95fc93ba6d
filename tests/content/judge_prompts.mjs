// The numeric prompts' own judge (web/src/page/numeric.js, as prompts.js calls it) over many answers in one Node.js
// process: reads [[text, prompt data as the page embeds it], ...] as JSON on stdin, prints one [verdict, message]
// per answer (verdict null when the text could not be read), in order.
import { judgeAnswer, parseAnswer } from "../../web/src/page/numeric.js";

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const out = JSON.parse(input).map(([text, data]) => {
    const parsed = parseAnswer(text, data.answer.length);
    if (parsed.error) return [null, parsed.error];
    const { verdict, message } = judgeAnswer(parsed.values, data);
    return [verdict, message];
  });
  process.stdout.write(JSON.stringify(out));
});
