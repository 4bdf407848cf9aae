// The role legend: untick a role to hide its sentences (a class on the text, so it costs nothing per sentence).
(function () {
  const text = document.getElementById("text");
  document.querySelectorAll(".role-toggle").forEach((box) => {
    box.addEventListener("change", () => text.classList.toggle("hide-" + box.value, !box.checked));
  });
})();
