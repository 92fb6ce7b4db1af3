"""Registration: doctor, hospital and invited-admin sign-up, and admin invitations."""
