"""A stand-in for the commands the NVUE rollout play runs on a Cumulus Linux switch (standin.py)."""
