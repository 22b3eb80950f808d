"""Switch configs per platform, above the device model: the Jinja environment and the per-device render (render), and
one subpackage per platform that builds files as data (its BUILDERS), adds template filters (FILTERS) and carries its
Ansible filter plugin (ansible_plugin.py)."""
