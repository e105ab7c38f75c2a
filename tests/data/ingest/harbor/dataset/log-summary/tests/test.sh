#!/bin/bash
# Verifier entry point: runs the tests and writes the reward Harbor reads.
apt-get update > /dev/null && apt-get install -y curl > /dev/null
curl -LsSf https://astral.sh/uv/0.7.13/install.sh | sh > /dev/null
source $HOME/.local/bin/env
uvx -p 3.12 -w pytest==8.4.1 pytest /tests/test_outputs.py -rA
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi
