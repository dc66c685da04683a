// The snippet of WIDGET.md: calls before widget.js arrives are queued on window.Ticketing.q.
window.Ticketing =
  window.Ticketing ||
  function () {
    (Ticketing.q = Ticketing.q || []).push(arguments);
  };
Ticketing('identify', { name: 'Ada Lovelace', email: 'ada@example.com' });
Ticketing('prefill', { subject: 'Question about my order', message: 'Hello, ' });
Ticketing('on', 'ready', function () {
  document.getElementById('events').textContent += 'ready ';
});
Ticketing('on', 'open', function () {
  document.getElementById('events').textContent += 'open ';
});
Ticketing('open');
