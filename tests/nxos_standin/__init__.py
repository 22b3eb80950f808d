"""A stand-in Cisco NX-OS switch for the rollout play (tests/test_rollout_nxos.py): an SSH server with the CLI and the
SCP sink the cisco.nxos modules and ansible.netcommon's network_cli use. config.py: the running-config model;
cli.py: the commands; server.py: SSH."""
