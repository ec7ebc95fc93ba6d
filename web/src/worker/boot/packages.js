/** Packages through Pyodide's own loadPackage (from this site's files, its lock file), and telling it what start-up
 * installed itself from the packs. */

const quiet = () => {};

/** Load `names` (lock file names, or wheel URLs) with Pyodide's loadPackage; its errors go to session.loadErrors. */
export const loadPackages = (session, names) => session.py.loadPackage(names, {
  messageCallback: quiet, errorCallback: (e) => session.loadErrors.push(e),
});

/**
 * Tell Pyodide's loadPackage that start-up installed these packages from the packs, so that an optional package
 * depending on them (matplotlib on numpy and packaging) takes them as loaded rather than fetching and unpacking
 * its lock file's copies over them.
 */
export function markLoaded(py, names) {
  for (const name of names) py.loadedPackages[name] ??= "default channel"; // Pyodide's name for its lock file
}
