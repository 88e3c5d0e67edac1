"""counters"""
