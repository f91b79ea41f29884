"""Comparators from the shuffle (shuffle) and random check-in (checkin) papers: functions, no method of the api.
The shuffle bounds convert RDP to (ε, δ) with the RDP route's conversion (rdp_conversion). docs/shuffle-checkin.md.
"""
