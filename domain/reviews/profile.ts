/** The profile shapes of GET /users/:id and /users/me: the profile with its owner's rating. */
import { PrivateProfile, PublicProfile } from "../users/user.ts";
import { Rating } from "./review.ts";

export const RatedPublicProfile = PublicProfile.extend({ rating: Rating })
  .meta({ id: "RatedPublicProfile" });
export const RatedPrivateProfile = PrivateProfile.extend({ rating: Rating })
  .meta({ id: "RatedPrivateProfile" });
