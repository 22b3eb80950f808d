"""The semantic checks: the rules on the intent and the plan (rules/) and the solver's proofs (solver/)."""
