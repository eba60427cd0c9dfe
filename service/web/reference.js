// The API reference: the OpenAPI document (/schema/openapi.json) drawn by Swagger UI, a
// pinned copy served from the package (vendor/README.md says which). It loads nothing
// from elsewhere: no validator badge (validatorUrl), no other document, and what "Try it
// out" sends goes to this service. The bundle is a classic script (it sets
// window.SwaggerUIBundle), so it is added as one; the page's policy allows scripts and
// styles from the service only.
import { loadLanguage } from './i18n.js';

const VENDOR = '/web/vendor';

function load(tag, attributes) {
  return new Promise((resolve, reject) => {
    const element = Object.assign(document.createElement(tag), attributes);
    element.addEventListener('load', resolve);
    element.addEventListener('error', () => reject(new Error(`${attributes.href ?? attributes.src} did not load`)));
    document.head.append(element);
  });
}

async function start() {
  const reference = document.createElement('div');
  reference.className = 'reference';
  reference.lang = 'en'; // the OpenAPI document is English; the page's own words follow the page's language
  document.getElementById('main').replaceChildren(reference);
  await Promise.all([
    loadLanguage(),
    load('link', { rel: 'stylesheet', href: `${VENDOR}/swagger-ui.css` }),
    load('script', { src: `${VENDOR}/swagger-ui-bundle.js` }),
  ]);
  window.SwaggerUIBundle({
    url: '/schema/openapi.json',
    domNode: reference,
    validatorUrl: null,
    deepLinking: false, // a deep link is an <a> inside each operation's button: nested controls
  });
}

start();
