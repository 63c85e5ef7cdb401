// Registered before the pages' scripts, so that even a syntax error in them is shown on the page
// and marks it as not rendered.
window.addEventListener('error', function (event) {
  var status = document.getElementById('ampbench-render-status');
  status.setAttribute('data-status', 'error');
  status.textContent = 'The charts could not be drawn: ' + event.message;
});
