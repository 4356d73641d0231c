// Editors' screens: a header checkbox ticks or clears every checkbox of its name in its table
// (delegated, so it keeps working in fragments htmx swaps in).
document.addEventListener("change", (event) => {
  const all = event.target.closest("input[data-select-all]");
  if (!all) return;
  const table = all.closest("table");
  const name = all.dataset.selectAll;
  for (const box of table.querySelectorAll(`input[type=checkbox][name="${name}"]`)) {
    box.checked = all.checked;
  }
});
