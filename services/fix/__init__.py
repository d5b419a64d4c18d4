"""Fix (issue 26): a store audit that repairs. The checks a shop's public pages are held to
(checks.py: audit, score, same_site_links), the repairs written for what they find
(repairs.py: the corrected page and a snippet per finding) and the two AI task kinds that
draft a meta description and image alt text (drafts.py). All three are pure: whatever
touches the network (a link probe, an image's size, the AI backend) is passed in by the
run that calls them."""
