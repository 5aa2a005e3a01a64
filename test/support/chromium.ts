/** Debian's Chromium, which the browser tests drive (never a downloaded browser). */
export const CHROMIUM = '/usr/bin/chromium';
