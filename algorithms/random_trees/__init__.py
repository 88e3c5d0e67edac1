"""random_trees"""
