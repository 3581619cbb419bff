/**
 * Imported before uPlot (web/src/lib/violations-chart.ts), which makes an Intl.NumberFormat of
 * navigator.language when it loads: a browser started under a POSIX locale reports a tag Intl refuses
 * (`en-US@posix`), and uPlot would not load at all. Such a tag is replaced by its language part.
 */
try {
  new Intl.NumberFormat(navigator.language);
} catch {
  const usable = navigator.language.split(/[@.]/)[0] || 'en-US';
  Object.defineProperty(navigator, 'language', { value: usable, configurable: true });
}

export {};
