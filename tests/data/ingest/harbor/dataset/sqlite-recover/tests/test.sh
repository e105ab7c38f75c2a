#!/bin/bash
python3 /tests/check_recovered.py && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt
