"""permission"""
