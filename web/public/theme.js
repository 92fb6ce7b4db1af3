// Apply the remembered theme and language direction before the first paint.
// A file of its own (not inline) so the page runs under a CSP without 'unsafe-inline'.
(function () {
  try {
    var theme = localStorage.getItem('theme');
    document.documentElement.dataset.theme = theme === 'dark' ? 'dark' : 'light';
    var locale = localStorage.getItem('locale');
    if (locale === 'ar') { document.documentElement.lang = 'ar'; document.documentElement.dir = 'rtl'; }
  } catch (e) {}
})();
