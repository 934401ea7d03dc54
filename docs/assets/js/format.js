// Numbers as the page scripts write them, in one place. Python writes nearly every number a reader sees
// (c9/base/units.py); these are the few a script writes itself, between answers or beside a control, and
// they read the same as Python's: thousands separated by commas, no trailing zeros.

// A message as a sentence: Python's messages end without a full stop, the page adds one.
export const sentence = (text) => (/[。！？…]$/.test(text) ? text : `${text}。`);

// An integer with thousands separators and Python's minus sign: 1048576 → "1,048,576", -5 → "−5".
export const thousands = (n) => Number(n).toLocaleString("en-US").replace("-", "−");

// At most `digits` significant digits, trailing zeros dropped: 4.25 → "4.25", 4.0625 → "4.063", 8 → "8".
export const significant = (x, digits = 4) => Number(Number(x).toPrecision(digits)).toString();

// Bytes in MB (10⁶ bytes) to a tenth: 7213000 → "7.2 MB".
export const megabytes = (bytes) => `${(Math.round(bytes / 1e5) / 10).toFixed(1)} MB`;

// A size as the build states it (hooks/offline.py: size_text): 「约」, to a tenth below 10 MB, whole from there.
export const aboutMegabytes = (bytes) => (Math.round(bytes / 1e5) < 100
  ? `约 ${megabytes(bytes)}` : `约 ${thousands(Math.round(bytes / 1e6))} MB`);

// A power of two with its exponent as superscript digits: -12 → "2⁻¹²".
const SUPERSCRIPT = { "-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹" };
export const powerOfTwo = (k) => `2${[...String(k)].map((c) => SUPERSCRIPT[c]).join("")}`;

// A code of `bits` bits in hex, upper case, one digit per four bits: (0x3c01, 16) → "0x3C01".
export const hexCode = (n, bits) => `0x${n.toString(16).toUpperCase().padStart(Math.ceil(bits / 4), "0")}`;
