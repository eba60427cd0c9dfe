// The player's name as this device remembers it: the lobby and the table's "sit down" fill it in.

const STORED = 'doko-name';

/** The name this player last sat down with on this device ('' if none). */
export function rememberedName() {
  try {
    return localStorage.getItem(STORED) ?? '';
  } catch {
    return '';
  }
}

/** Remember the name this player sits down with, for the next table; returns it.
 * @param {string} name */
export function rememberName(name) {
  try {
    if (name) localStorage.setItem(STORED, name);
  } catch {
    // a browser that keeps nothing: the name is typed again next time
  }
  return name;
}
