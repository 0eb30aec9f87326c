// A small QR code encoder (ISO/IEC 18004): byte mode, error correction L or M, versions 1–40,
// automatic mask choice. Enough for device URLs; no dependency, nothing fetched.
//
//   import { qrMatrix, drawQR, qrSVG } from './qr.js';
//   const m = qrMatrix('http://192.168.1.20:8080/s/tv1/', 'M');  // {size, version, mask, dark(x, y)}
//   drawQR(canvas, 'http://…', { pixelsPerModule: 4 });
//
// Checked by decoding its output with zbar (Tests/Dashboard/qr_check.py).

// Error correction codewords per block and number of blocks, indexed by version (0 unused).
const ECC_PER_BLOCK = {
  L: [-1, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
  M: [-1, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
};
const NUM_BLOCKS = {
  L: [-1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
  M: [-1, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
};
// The two format bits of each level.
const ECL_BITS = { L: 1, M: 0 };

// Modules available for data and error correction in a symbol of this version.
function rawDataModules(version) {
  let n = (16 * version + 128) * version + 64;
  if (version >= 2) {
    const align = Math.floor(version / 7) + 2;
    n -= (25 * align - 10) * align - 55;
    if (version >= 7) n -= 36;
  }
  return n;
}

function dataCodewords(version, ecl) {
  return Math.floor(rawDataModules(version) / 8) - ECC_PER_BLOCK[ecl][version] * NUM_BLOCKS[ecl][version];
}

// Centres of the alignment patterns along one axis.
function alignmentPositions(version) {
  if (version === 1) return [];
  const count = Math.floor(version / 7) + 2;
  const step = version === 32 ? 26 : Math.ceil((version * 4 + 4) / (count * 2 - 2)) * 2;
  const positions = [6];
  for (let pos = version * 4 + 10; positions.length < count; pos -= step) positions.splice(1, 0, pos);
  return positions;
}

// GF(256) with the QR polynomial x^8 + x^4 + x^3 + x^2 + 1.
function gfMultiply(x, y) {
  let z = 0;
  for (let i = 7; i >= 0; i--) {
    z = (z << 1) ^ ((z >>> 7) * 0x11d);
    z ^= ((y >>> i) & 1) * x;
  }
  return z;
}

function reedSolomonDivisor(degree) {
  const result = new Array(degree).fill(0);
  result[degree - 1] = 1;
  let root = 1;
  for (let i = 0; i < degree; i++) {
    for (let j = 0; j < result.length; j++) {
      result[j] = gfMultiply(result[j], root);
      if (j + 1 < result.length) result[j] ^= result[j + 1];
    }
    root = gfMultiply(root, 0x02);
  }
  return result;
}

function reedSolomonRemainder(data, divisor) {
  const result = divisor.map(() => 0);
  for (const byte of data) {
    const factor = byte ^ result.shift();
    result.push(0);
    divisor.forEach((coef, i) => { result[i] ^= gfMultiply(coef, factor); });
  }
  return result;
}

function utf8(text) {
  return Array.from(new TextEncoder().encode(text));
}

// Bits before the data: an ECI header saying UTF-8 (ECI 26) when the text is not plain ASCII.
const eciBits = bytes => (bytes.some(b => b >= 0x80) ? 12 : 0);

// Data codewords: [ECI,] mode, length, bytes, terminator, padding.
function encodeData(bytes, version, ecl) {
  const bits = [];
  const put = (value, length) => { for (let i = length - 1; i >= 0; i--) bits.push((value >>> i) & 1); };
  if (eciBits(bytes)) {
    put(0b0111, 4);
    put(26, 8);
  }
  put(0b0100, 4);
  put(bytes.length, version <= 9 ? 8 : 16);
  bytes.forEach(b => put(b, 8));
  const capacity = dataCodewords(version, ecl) * 8;
  put(0, Math.min(4, capacity - bits.length));
  put(0, (8 - bits.length % 8) % 8);
  for (let pad = 0xec; bits.length < capacity; pad ^= 0xec ^ 0x11) put(pad, 8);
  const codewords = [];
  for (let i = 0; i < bits.length; i += 8) codewords.push(bits.slice(i, i + 8).reduce((a, b) => (a << 1) | b, 0));
  return codewords;
}

// Splits into blocks, adds error correction, interleaves.
function addErrorCorrection(data, version, ecl) {
  const blocks = NUM_BLOCKS[ecl][version];
  const eccLength = ECC_PER_BLOCK[ecl][version];
  const raw = Math.floor(rawDataModules(version) / 8);
  const shortBlocks = blocks - raw % blocks;
  const shortLength = Math.floor(raw / blocks);
  const divisor = reedSolomonDivisor(eccLength);
  const split = [];
  for (let i = 0, k = 0; i < blocks; i++) {
    const length = shortLength - eccLength + (i < shortBlocks ? 0 : 1);
    const block = data.slice(k, k + length);
    k += length;
    const ecc = reedSolomonRemainder(block, divisor);
    if (i < shortBlocks) block.push(null); // keeps the columns aligned for interleaving
    split.push(block.concat(ecc));
  }
  const result = [];
  for (let i = 0; i < split[0].length; i++) {
    for (const block of split) if (block[i] !== null) result.push(block[i]);
  }
  return result;
}

function bchFormat(ecl, mask) {
  const data = (ECL_BITS[ecl] << 3) | mask;
  let rem = data;
  for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537);
  return ((data << 10) | rem) ^ 0x5412;
}

function bchVersion(version) {
  let rem = version;
  for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >>> 11) * 0x1f25);
  return (version << 12) | rem;
}

const MASKS = [
  (x, y) => (x + y) % 2 === 0,
  (x, y) => y % 2 === 0,
  (x, y) => x % 3 === 0,
  (x, y) => (x + y) % 3 === 0,
  (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0,
  (x, y) => (x * y) % 2 + (x * y) % 3 === 0,
  (x, y) => ((x * y) % 2 + (x * y) % 3) % 2 === 0,
  (x, y) => ((x + y) % 2 + (x * y) % 3) % 2 === 0,
];

class Grid {
  constructor(version) {
    this.version = version;
    this.size = version * 4 + 17;
    this.modules = Array.from({ length: this.size }, () => new Array(this.size).fill(false));
    this.reserved = Array.from({ length: this.size }, () => new Array(this.size).fill(false));
  }

  set(x, y, dark) {
    this.modules[y][x] = dark;
    this.reserved[y][x] = true;
  }

  drawFunctionPatterns() {
    const n = this.size;
    for (let i = 0; i < n; i++) {
      this.set(6, i, i % 2 === 0);
      this.set(i, 6, i % 2 === 0);
    }
    for (const [cx, cy] of [[3, 3], [n - 4, 3], [3, n - 4]]) {
      for (let dy = -4; dy <= 4; dy++) {
        for (let dx = -4; dx <= 4; dx++) {
          const x = cx + dx, y = cy + dy;
          if (x < 0 || y < 0 || x >= n || y >= n) continue;
          const d = Math.max(Math.abs(dx), Math.abs(dy));
          this.set(x, y, d !== 2 && d !== 4);
        }
      }
    }
    const align = alignmentPositions(this.version);
    const last = align.length - 1;
    align.forEach((cx, i) => align.forEach((cy, j) => {
      if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) return;
      for (let dy = -2; dy <= 2; dy++) {
        for (let dx = -2; dx <= 2; dx++) this.set(cx + dx, cy + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
      }
    }));
    this.drawFormat('M', 0); // reserves the format areas; redrawn with the chosen mask
    if (this.version >= 7) {
      const bits = bchVersion(this.version);
      for (let i = 0; i < 18; i++) {
        const dark = ((bits >>> i) & 1) === 1;
        const a = n - 11 + i % 3, b = Math.floor(i / 3);
        this.set(a, b, dark);
        this.set(b, a, dark);
      }
    }
  }

  drawFormat(ecl, mask) {
    const n = this.size;
    const bits = bchFormat(ecl, mask);
    const bit = i => ((bits >>> i) & 1) === 1;
    for (let i = 0; i <= 5; i++) this.set(8, i, bit(i));
    this.set(8, 7, bit(6));
    this.set(8, 8, bit(7));
    this.set(7, 8, bit(8));
    for (let i = 9; i < 15; i++) this.set(14 - i, 8, bit(i));
    for (let i = 0; i < 8; i++) this.set(n - 1 - i, 8, bit(i));
    for (let i = 8; i < 15; i++) this.set(8, n - 15 + i, bit(i));
    this.set(8, n - 8, true); // the dark module
  }

  drawCodewords(codewords) {
    const n = this.size;
    let i = 0;
    for (let right = n - 1; right >= 1; right -= 2) {
      if (right === 6) right = 5;
      for (let vert = 0; vert < n; vert++) {
        for (let j = 0; j < 2; j++) {
          const x = right - j;
          const upward = ((right + 1) & 2) === 0;
          const y = upward ? n - 1 - vert : vert;
          if (this.reserved[y][x]) continue;
          if (i < codewords.length * 8) this.modules[y][x] = ((codewords[i >>> 3] >>> (7 - (i & 7))) & 1) === 1;
          i++;
        }
      }
    }
  }

  applyMask(mask) {
    const test = MASKS[mask];
    for (let y = 0; y < this.size; y++) {
      for (let x = 0; x < this.size; x++) {
        if (!this.reserved[y][x] && test(x, y)) this.modules[y][x] = !this.modules[y][x];
      }
    }
  }

  // The standard's penalty score (lower is better) used to choose a mask.
  penalty() {
    const n = this.size, m = this.modules;
    let score = 0;
    const line = get => {
      let run = 1;
      for (let i = 1; i <= n; i++) {
        if (i < n && get(i) === get(i - 1)) { run++; continue; }
        if (run >= 5) score += run - 2;
        run = 1;
      }
      // 1:1:3:1:1 finder-like pattern with four light modules on one side (outside counts as light).
      const at = i => (i < 0 || i >= n ? false : get(i));
      for (let i = -4; i < n; i++) {
        const core = [true, false, true, true, true, false, true];
        if (!core.every((c, k) => at(i + k) === c)) continue;
        const before = [1, 2, 3, 4].every(k => !at(i - k));
        const after = [7, 8, 9, 10].every(k => !at(i + k));
        if (before || after) score += 40;
      }
    };
    for (let y = 0; y < n; y++) line(x => m[y][x]);
    for (let x = 0; x < n; x++) line(y => m[y][x]);
    for (let y = 0; y < n - 1; y++) {
      for (let x = 0; x < n - 1; x++) {
        const c = m[y][x];
        if (c === m[y][x + 1] && c === m[y + 1][x] && c === m[y + 1][x + 1]) score += 3;
      }
    }
    let dark = 0;
    m.forEach(row => row.forEach(v => { if (v) dark++; }));
    const total = n * n;
    score += (Math.ceil(Math.abs(dark * 20 - total * 10) / total) - 1) * 10;
    return score;
  }
}

/**
 * Encodes `text` (UTF-8, byte mode; with an ECI header for UTF-8 when it is not ASCII) in the smallest
 * version that holds it at level `ecl` ('L' or 'M'). The mask is chosen by the standard's penalty
 * unless `options.mask` (0–7) forces one (for tests).
 * Returns {version, size, mask, ecl, modules: boolean[][] (row-major, true = dark), dark(x, y)}.
 */
export function qrMatrix(text, ecl = 'M', options = {}) {
  if (!ECC_PER_BLOCK[ecl]) throw new Error(`error correction level ${ecl}: only L and M`);
  const bytes = utf8(text);
  let version = 1;
  for (; version <= 40; version++) {
    const countBits = version <= 9 ? 8 : 16;
    if (eciBits(bytes) + 4 + countBits + bytes.length * 8 <= dataCodewords(version, ecl) * 8) break;
  }
  if (version > 40) throw new Error(`text of ${bytes.length} bytes is too long for a QR code`);
  const codewords = addErrorCorrection(encodeData(bytes, version, ecl), version, ecl);
  const masks = Number.isInteger(options.mask) ? [options.mask] : [0, 1, 2, 3, 4, 5, 6, 7];
  let best = null;
  for (const mask of masks) {
    const grid = new Grid(version);
    grid.drawFunctionPatterns();
    grid.drawCodewords(codewords);
    grid.applyMask(mask);
    grid.drawFormat(ecl, mask);
    const score = grid.penalty();
    if (!best || score < best.score) best = { grid, score, mask };
  }
  const modules = best.grid.modules;
  return {
    version, ecl, mask: best.mask, size: best.grid.size, modules,
    dark: (x, y) => modules[y][x],
  };
}

/**
 * Draws the code on a canvas: white background, a quiet zone of `margin` modules, crisp modules
 * (whole device pixels). `cssSize` is the displayed width in CSS pixels (approximate: rounded to
 * whole modules).
 */
export function drawQR(canvas, text, { ecl = 'M', cssSize = 160, margin = 4 } = {}) {
  const qr = qrMatrix(text, ecl);
  const modules = qr.size + margin * 2;
  const ratio = (typeof window !== 'undefined' && window.devicePixelRatio) || 1;
  const perModule = Math.max(1, Math.round((cssSize * ratio) / modules));
  canvas.width = canvas.height = modules * perModule;
  canvas.style.width = canvas.style.height = `${(modules * perModule) / ratio}px`;
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = '#000';
  for (let y = 0; y < qr.size; y++) {
    for (let x = 0; x < qr.size; x++) {
      if (qr.modules[y][x]) ctx.fillRect((x + margin) * perModule, (y + margin) * perModule, perModule, perModule);
    }
  }
  return qr;
}

/** The code as an SVG document string (one path), scalable to any size. */
export function qrSVG(text, { ecl = 'M', margin = 4 } = {}) {
  const qr = qrMatrix(text, ecl);
  const total = qr.size + margin * 2;
  let d = '';
  for (let y = 0; y < qr.size; y++) {
    for (let x = 0; x < qr.size; x++) if (qr.modules[y][x]) d += `M${x + margin} ${y + margin}h1v1h-1z`;
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${total} ${total}" shape-rendering="crispEdges">`
    + `<rect width="${total}" height="${total}" fill="#fff"/><path d="${d}" fill="#000"/></svg>`;
}
