// @ts-check
// Whole numbers as English prose writes them (2,048). Not toLocaleString: the first use of Intl
// on a page loads its locale data, 17–70 ms of the page's thread in a cold load (more while the
// runtime compiles beside it), and the view writes a grouped number in its first paint.

/** @param {number} n  rounded to a whole number @returns {string} */
export function grouped(n) {
  const whole = Math.round(n);
  const digits = String(Math.abs(whole)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return whole < 0 ? `-${digits}` : digits;
}
