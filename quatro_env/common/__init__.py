"""Pieces shared by the three games: statistics and a generic AEC tournament runner."""
