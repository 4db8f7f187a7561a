// Keyboard navigation of the explorer: j / ArrowRight follow the page's rel="next" link,
// k / ArrowLeft its rel="prev" link (the next / previous question of a trajectory, the
// next / previous page of a long message or of a long table's rows). Served from the app;
// no inline script.
"use strict";
document.addEventListener("keydown", function (event) {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  var target = event.target;
  if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" ||
                 target.tagName === "SELECT" || target.isContentEditable)) return;
  var rel = null;
  if (event.key === "j" || event.key === "ArrowRight") rel = "next";
  if (event.key === "k" || event.key === "ArrowLeft") rel = "prev";
  if (rel === null) return;
  var link = document.querySelector('a[rel="' + rel + '"]');
  if (link) {
    event.preventDefault();
    window.location.href = link.href;
  }
});
