"""Growth: how a founder gets traffic. The ad artifact and its editors (ads.py), the campaign
book (book.py), the ad balance and its top-ups (balance.py) and organic research with its
approvals (organic.py)."""
