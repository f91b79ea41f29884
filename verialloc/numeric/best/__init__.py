"""Method "best": the tightest valid bracket over the float64 methods (best_accountant; method object in method)."""
