function renderFit(fit, container) { container.append(el('p', {text: 'fit'})); }
