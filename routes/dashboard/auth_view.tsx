/** The dashboard's sign-in and sign-up forms, shown until a session starts. */
import { Field, FormError } from "./parts.tsx";

export function AuthView() {
  return (
    <section id="auth-view" class="auth" aria-label="Sign in or create an account">
      <div class="card auth-card">
        <form id="sign-in-form" method="post" novalidate aria-labelledby="sign-in-heading">
          <h1 id="sign-in-heading" class="auth-title">Sign in</h1>
          <p class="muted">Manage your account and API keys.</p>
          <p class="notice" id="auth-notice" role="status" hidden></p>
          <FormError id="sign-in-error" />
          <Field
            id="sign-in-email"
            label="Email"
            error="email"
            type="email"
            autocomplete="username"
          />
          <Field
            id="sign-in-password"
            label="Password"
            error="password"
            type="password"
            autocomplete="current-password"
          />
          <button type="submit" class="button primary wide">Sign in</button>
          <p class="switch">
            New here?{" "}
            <button type="button" class="link" data-show-form="sign-up-form">
              Create an account
            </button>
          </p>
        </form>
        <form id="sign-up-form" method="post" novalidate aria-labelledby="sign-up-heading" hidden>
          <h1 id="sign-up-heading" class="auth-title">Create an account</h1>
          <p class="muted">It takes a minute; you can create API keys right after.</p>
          <FormError id="sign-up-error" />
          <div class="row">
            <Field
              id="sign-up-first-name"
              label="First name"
              error="firstName"
              autocomplete="given-name"
            />
            <Field
              id="sign-up-last-name"
              label="Last name"
              optional
              error="lastName"
              autocomplete="family-name"
            />
          </div>
          <Field id="sign-up-email" label="Email" error="email" type="email" autocomplete="email" />
          <Field
            id="sign-up-password"
            label="Password"
            error="password"
            type="password"
            autocomplete="new-password"
            hint="8 to 128 characters."
          />
          <button type="submit" class="button primary wide">Create account</button>
          <p class="switch">
            Already have an account?{" "}
            <button type="button" class="link" data-show-form="sign-in-form">Sign in</button>
          </p>
        </form>
      </div>
    </section>
  );
}
