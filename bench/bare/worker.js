// The baseline: load Pyodide, numpy and pytest one after the other, exactly as Pyodide's docs describe.
self.onmessage = async (e) => {
  if (e.data.code) {
    const t0 = performance.now();
    self.pyodide.runPython(e.data.code);
    self.postMessage({ stage: "ran", ms: performance.now() - t0 });
    return;
  }
  try {
    const base = e.data.base;
    const { loadPyodide } = await import(`${base}pyodide.mjs`);
    const pyodide = await loadPyodide({ indexURL: base });
    self.pyodide = pyodide;
    self.postMessage({ stage: "python" });
    await pyodide.loadPackage("numpy");
    pyodide.runPython("import numpy");
    self.postMessage({ stage: "numpy" });
    const { wheels } = await (await fetch(`${base}wheels.json`)).json();
    await pyodide.loadPackage(wheels.map((w) => base + w));
    pyodide.runPython("import pytest");
    self.postMessage({ stage: "pytest" });
  } catch (err) {
    self.postMessage({ stage: "failed", error: String(err) });
  }
};
