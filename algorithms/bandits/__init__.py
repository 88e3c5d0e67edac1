"""bandits"""
