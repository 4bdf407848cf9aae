// Fill in each hit's one-line explanation after the results are on screen: the list never waits for an LLM.
(function () {
  const slots = Array.from(document.querySelectorAll(".why[data-id]"));
  const fill = async (slot) => {
    // the search's filters come along: a search of filters alone is explained by them
    const filters = slot.dataset.filters ? "&" + slot.dataset.filters : "";
    const url = "/ui/explain?" + new URLSearchParams({ q: slot.dataset.q, judgment_id: slot.dataset.id }) + filters;
    try {
      const response = await fetch(url, { headers: { Accept: "text/html" } });
      slot.innerHTML = response.ok ? await response.text() : '<span class="muted">No explanation.</span>';
    } catch (error) {
      slot.innerHTML = '<span class="muted">No explanation (the server did not answer).</span>';
    }
    slot.classList.add("ready");
  };
  // One at a time, in rank order: the first hits are the ones read first, and an LLM serves one request at a time.
  slots.reduce((done, slot) => done.then(() => fill(slot)), Promise.resolve());
})();
