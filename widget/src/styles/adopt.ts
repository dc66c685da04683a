/**
 * Styles go in as constructed stylesheets adopted by the shadow root: no <style> element and no
 * style attribute, so a page whose CSP has no 'unsafe-inline' for styles still shows the widget.
 */
export function adopt(root: ShadowRoot, css: string) {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  return sheet;
}
