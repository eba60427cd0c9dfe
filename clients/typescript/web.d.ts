/** What the web client's pages (service/web) find in the browser besides the DOM, for
 * `npm run check:web`: Swagger UI's bundle (service/web/vendor), which reference.js loads. */
interface Window {
  SwaggerUIBundle(options: object): void;
}
