// @ts-check
/// <reference lib="dom" />
// The page's elements by selector, for every other part. The page's one script module is this
// file and the parts after it joined in order (see register.tsx): each part imports only from the
// parts before it, so the imports form no circle and later parts use these names.

/**
 * The page's element for `selector`; the page holds every element the script names. Typed as
 * the common element: a caller that needs a form, input or dialog says so with a cast.
 * @param {string} selector
 * @param {ParentNode} [root]
 * @returns {HTMLElement}
 */
export const $ = (
  selector,
  root = document,
) => /** @type {HTMLElement} */ (root.querySelector(selector));
/**
 * @param {string} selector
 * @param {ParentNode} [root]
 * @returns {HTMLElement[]}
 */
export const $$ = (selector, root = document) =>
  [...root.querySelectorAll(selector)].map(
    (found) => /** @type {HTMLElement} */ (found),
  );

/**
 * `$` for a form control whose value or checked state the script reads or sets.
 * @param {string} selector
 * @param {ParentNode} [root]
 */
export const $input = (
  selector,
  root = document,
) => /** @type {HTMLInputElement} */ (root.querySelector(selector));
/**
 * @param {string} selector
 * @param {ParentNode} [root]
 */
export const $$input = (selector, root = document) =>
  $$(selector, root).map((found) => /** @type {HTMLInputElement} */ (found));

/**
 * Sends each click on a row's action button (`button[data-action]`) in the table body `body` to
 * `act`, with the button and its row.
 * @param {HTMLElement} body
 * @param {(button: HTMLElement, row: HTMLElement) => void} act
 */
export function onRowAction(body, act) {
  body.addEventListener("click", (event) => {
    const button = /** @type {HTMLElement | null} */ (
      /** @type {Element} */ (event.target).closest("button[data-action]")
    );
    const row = button?.closest("tr");
    if (button && row) act(button, row);
  });
}
