// Counts Content-Security-Policy violations on this page, so a person (and the browser tests) can see them.
window.cspViolations = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI);
  document.getElementById('violations').textContent = 'CSP violations: ' + window.cspViolations.length;
});
