"""A doctor\x27s own profile: details, certifications with their files, work history, availability."""
