// A tooltip for a chart: hovering an element that matches `selector` shows `describe(element,
// time)` beside the pointer (`time`: the pointer's time in ms, when `scale` is given); clicking it calls `pick(element)`. The tooltip outlives a redraw of the
// chart (a live chart is drawn again every second), so it stays while the pointer stays.

import { h } from '../dom.js';

/** Listens on `svg`; returns the tooltip element (the one `host` has already, else a new one) to put beside it. */
export function attachTooltip(host, svg, { selector, describe, pick, scale = null }) {
  const tip = host.querySelector(':scope > .chart-tip') || h('div', { class: 'chart-tip lane-tip', hidden: true, role: 'tooltip' });
  const target = event => (event.target.closest ? event.target.closest(selector) : null);
  svg.addEventListener('mousemove', event => {
    const el = target(event);
    const text = el ? describe(el, scale ? pointerTime(svg, scale, event) : null) : null;
    if (!text) { tip.hidden = true; return; }
    tip.textContent = text;
    const box = host.getBoundingClientRect();
    tip.hidden = false;
    tip.style.left = `${Math.min(event.clientX - box.left + 12, box.width - 240)}px`;
    tip.style.top = `${event.clientY - box.top + 14}px`;
  });
  svg.addEventListener('mouseleave', () => { tip.hidden = true; });
  svg.addEventListener('click', event => {
    const el = target(event);
    if (el && pick) pick(el);
  });
  return tip;
}

/** The time under the pointer, in ms (the drawing may be scaled to the page's width). */
function pointerTime(svg, scale, event) {
  const box = svg.getBoundingClientRect();
  const drawn = Number(svg.getAttribute('width')) || box.width;
  return scale.time((event.clientX - box.left) * (drawn / (box.width || drawn)));
}
