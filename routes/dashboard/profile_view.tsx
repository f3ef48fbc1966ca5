/** Settings → Profile: the signed-in account as the API sees it, filled by the script. */
import { Breadcrumb } from "./parts.tsx";

export function ProfileView() {
  return (
    <section id="profile-view" class="view" aria-labelledby="profile-heading" hidden>
      <Breadcrumb trail={["Settings", "Profile"]} />
      <div class="view-header">
        <div>
          <h1 id="profile-heading">Profile</h1>
          <p class="muted">Your account as the API sees it (GET /v1/users/me).</p>
        </div>
      </div>
      <dl class="card profile" id="profile-details">
        <div>
          <dt>Name</dt>
          <dd data-profile="name"></dd>
        </div>
        <div>
          <dt>Email</dt>
          <dd data-profile="email"></dd>
        </div>
        <div>
          <dt>User id</dt>
          <dd>
            <code data-profile="id"></code>
          </dd>
        </div>
        <div>
          <dt>Member since</dt>
          <dd data-profile="createdAt"></dd>
        </div>
      </dl>
    </section>
  );
}
