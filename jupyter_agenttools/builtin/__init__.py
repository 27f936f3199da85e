"""builtin"""
