"""Research and verdict: what the service knows about a founder's product and what it says
about it, always with its sources. One module per concern:

- `offer`     the offer arithmetic (price, cost, shipping, fees, margins, break-even) over
              plain values, every input named with its source;
- `analysis`  the analyser: demand, competition, margin and risk from evidence rows;
- `verdict`   the published dashboard rules (go, test_small, pass);
- `records`   the `research` job's work, the stored row and when it is stale;
- `answers`   what the offer, analysis, analyze, dashboard and launch routes answer;
- `launch`    the launch facts and the registry other areas add their checks to;
- `outcomes`  declared outcomes of claimed products and the published track record.
"""
