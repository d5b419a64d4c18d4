// Placeholder until the app lands: marks the document ready so tooling can wait for it.
document.querySelector("main").textContent = "The app is loading.";
document.documentElement.dataset.ready = "true";
