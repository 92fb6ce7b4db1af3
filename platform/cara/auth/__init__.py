"""Sign-up, sign-in, the current user, sign-out and password reset."""
