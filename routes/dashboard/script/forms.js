// @ts-check
/// <reference lib="dom" />
// The dashboard's forms: a submit that sends once, and an API problem shown beside the fields it
// names. A part of the page's one script module (see dom.js).

import { $, $$ } from "./dom.js";
import { ApiProblem } from "./api.js";

/**
 * Rewords a problem entry shown beside a field: `head` is the path's first member.
 * @typedef {(head: string, rest: string[], message: string) => string} Describe
 */

/**
 * A form of the page; `describeProblem` may reword the problem entries shown beside its fields.
 * @typedef {HTMLFormElement & { describeProblem?: Describe }} ProblemForm
 */

/**
 * `$` for a form.
 * @param {string} selector
 * @returns {ProblemForm}
 */
export const $form = (selector) => /** @type {ProblemForm} */ ($(selector));

/** @param {HTMLElement} form */
export function clearErrors(form) {
  for (const slot of $$("[data-error-for]", form)) slot.textContent = "";
  for (const control of $$("[aria-invalid]", form)) control.removeAttribute("aria-invalid");
  const formError = $("[data-form-error]", form);
  if (formError) formError.textContent = "";
}

/**
 * The control a message slot describes: an input, a textarea, or a fieldset's first input.
 * @param {HTMLElement} form
 * @param {HTMLElement} slot
 * @returns {HTMLInputElement | null}
 */
function controlFor(form, slot) {
  const described = $(`[aria-describedby~="${slot.id}"]`, form);
  if (described?.tagName === "FIELDSET") {
    return /** @type {HTMLInputElement} */ ($("input:not([disabled])", described));
  }
  return /** @type {HTMLInputElement | null} */ (described);
}

/**
 * Shows an API problem on a form: each `errors[]` entry next to the field its path names,
 * anything else (and a problem without `errors`) at the top of the form.
 * `describe(head, rest, message)` may reword an entry, e.g. to name a textarea's line.
 * @param {HTMLElement} form
 * @param {ApiProblem} problem
 * @param {Describe} [describe]
 */
function showProblem(form, problem, describe = (_head, _rest, message) => message) {
  clearErrors(form);
  const slots = $$("[data-error-for]", form);
  const unplaced = [];
  /** @type {HTMLInputElement | null} */
  let first = null;
  for (const entry of problem.errors ?? []) {
    const [head, ...rest] = String(entry.path).split(".");
    const slot = slots.find((s) => (s.dataset.errorFor ?? "").split(" ").includes(head));
    if (!slot) {
      unplaced.push(`${entry.path}: ${entry.message}`);
      continue;
    }
    const text = describe(head, rest, sentence(entry.message));
    slot.textContent = slot.textContent ? `${slot.textContent}\n${text}` : text;
    const control = controlFor(form, slot);
    if (control && control.type !== "checkbox" && control.type !== "radio") {
      control.setAttribute("aria-invalid", "true");
    }
    first ??= control;
  }
  const formError = $("[data-form-error]", form);
  if (problem.errors?.length === 0 || unplaced.length > 0 || !first) {
    formError.textContent = [problem.text ?? problem.message, ...unplaced].join(" ");
    formError.scrollIntoView({ block: "nearest" });
  }
  first?.focus();
}

/**
 * The API's messages start in lower case; beside a field they read as sentences.
 * @param {string} message
 */
function sentence(message) {
  const text = String(message);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * Runs a form's action with its submit button busy, so a double click sends once. A form may
 * carry a `describeProblem` to reword the entries shown beside its fields.
 * @param {ProblemForm} form
 * @param {() => Promise<void>} action
 */
export function onSubmit(form, action) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = /** @type {HTMLButtonElement} */ ($("button[type=submit]", form));
    if (button.disabled) return;
    button.disabled = true;
    form.setAttribute("aria-busy", "true");
    try {
      clearErrors(form);
      await action();
    } catch (error) {
      if (error instanceof ApiProblem) showProblem(form, error, form.describeProblem);
      else throw error;
    } finally {
      button.disabled = false;
      form.removeAttribute("aria-busy");
    }
  });
}
