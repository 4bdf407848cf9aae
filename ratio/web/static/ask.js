// The ask page with JavaScript: the question goes to /ui/ask/stream (server-sent events), each step is listed as it
// happens, and the answer (the same fragment the page shows without JavaScript) replaces the list when it arrives.
(function () {
  const form = document.getElementById("ask-form");
  if (!form || !window.EventSource) return; // the form still POSTs and the page comes back with the answer
  const progress = document.getElementById("progress");
  const steps = document.getElementById("steps");
  const answer = document.getElementById("answer");
  const button = document.getElementById("ask-button");
  let source = null;

  const step = (text, kind) => {
    const item = document.createElement("li");
    item.textContent = text;
    if (kind) item.className = kind;
    steps.appendChild(item);
  };
  const finish = () => {
    if (source) source.close();
    source = null;
    button.disabled = false;
    progress.classList.remove("running");
  };
  const failed = (message) => {
    const alert = document.createElement("p");
    alert.className = "error";
    alert.id = "ask-error";
    alert.setAttribute("role", "alert");
    alert.textContent = message;
    answer.replaceChildren(alert);
    finish();
  };

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (source) source.close();
    const old = document.getElementById("ask-error");
    if (old) old.remove();
    const params = new URLSearchParams(new FormData(form));
    steps.replaceChildren();
    answer.replaceChildren();
    progress.hidden = false;
    progress.classList.add("running");
    button.disabled = true;
    step("Asking…");
    let ended = false;
    source = new EventSource("/ui/ask/stream?" + params.toString());
    source.addEventListener("progress", (e) => {
      const data = JSON.parse(e.data);
      step(data.message, "stage-" + data.stage);
    });
    source.addEventListener("answer", (e) => {
      answer.innerHTML = JSON.parse(e.data).html; // rendered (and escaped) by the server's template
    });
    source.addEventListener("done", () => {
      ended = true;
      finish();
    });
    // A server-sent "error" event carries data; the browser's own (connection refused or lost) does not.
    source.addEventListener("error", (e) => {
      if (e.data) {
        ended = true;
        failed(JSON.parse(e.data).message);
      } else if (!ended) {
        failed("The server did not answer the question (the connection was refused or lost). Without an LLM, " +
               "this server cannot answer; search still works.");
      }
    });
  });
})();
