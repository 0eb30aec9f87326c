// SVG elements for the charts.

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An SVG element; `text` sets its text, other keys are attributes (null and undefined left out). */
export function s(tag, attrs) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined) continue;
    if (key === 'text') el.textContent = value; else el.setAttribute(key, value);
  }
  return el;
}

/** A chart's drawing surface, `width` × `height` px, named for screen readers. */
export function frame(width, height, label) {
  return s('svg', { width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': label });
}
