/* global document, navigator */
// Progressive enhancement: a "Copy" button under every [data-copy] value. The pages work
// without it (the values select with one click); served from /static so the CSP allows it.
'use strict';
document.addEventListener('DOMContentLoaded', function () {
  if (!navigator.clipboard) return;
  document.querySelectorAll('[data-copy]').forEach(function (element) {
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'button copy-button';
    button.textContent = 'Copy';
    button.addEventListener('click', function () {
      navigator.clipboard.writeText(element.textContent.trim()).then(function () {
        button.textContent = 'Copied';
      });
    });
    element.insertAdjacentElement('afterend', button);
  });
});
