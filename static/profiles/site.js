// Progressive enhancement only: every form works without this file.
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  // The language selector submits itself on change (the button stays for no-JS users).
  document.querySelectorAll("select[data-autosubmit]").forEach(function (sel) {
    sel.addEventListener("change", function () { sel.form.submit(); });
  });
  // Buttons that destroy data ask once more; the server still requires POST + CSRF.
  document.querySelectorAll("form[data-confirm]").forEach(function (form) {
    form.addEventListener("submit", function (ev) {
      if (!window.confirm(form.getAttribute("data-confirm"))) { ev.preventDefault(); }
    });
  });
})();
