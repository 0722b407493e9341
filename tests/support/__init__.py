"""Test helpers: local servers that stand in for the services, and script runners."""
