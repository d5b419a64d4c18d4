"""Where a repair goes, in words, on the platform a shop's page was made with.

A founder whose store is elsewhere cannot paste a snippet "into the page's head" without
knowing where their platform keeps it: Shopify, WooCommerce (WordPress), Wix and Squarespace
each have their own screen for a page's search title, an image's alt text or code added to
every page. `recognise` names the platform from what its pages always carry (their own file
hosts, generator tags, the scripts each platform writes), and `how` says, per repair, where
in that platform's admin the change goes. A page none of them made is plain HTML: its file
is edited directly.
"""
from __future__ import annotations

import re

SHOPIFY, WOOCOMMERCE, WIX, SQUARESPACE, HTML = "shopify", "woocommerce", "wix", "squarespace", "html"
PLATFORMS = (SHOPIFY, WOOCOMMERCE, WIX, SQUARESPACE, HTML)
NAMES = {SHOPIFY: "Shopify", WOOCOMMERCE: "WooCommerce (WordPress)", WIX: "Wix", SQUARESPACE: "Squarespace",
         HTML: "plain HTML"}

# What each platform's pages carry, whatever the theme: its file hosts, its generator tag and
# the scripts it writes. Checked in this order; WooCommerce before plain WordPress (a WordPress
# site without the shop plugin is edited the same way, and is named WooCommerce's family here).
_SIGNS = (
    (SHOPIFY, re.compile(r"cdn\.shopify\.com|shopifycdn\.net|\bShopify\.theme\b|myshopify\.com", re.I)),
    (WIX, re.compile(r"static\.wixstatic\.com|static\.parastorage\.com|"
                     r"<meta[^>]+name=[\"']generator[\"'][^>]+content=[\"']Wix", re.I)),
    (SQUARESPACE, re.compile(r"static1\.squarespace\.com|Static\.SQUARESPACE_CONTEXT|"
                             r"<meta[^>]+name=[\"']generator[\"'][^>]+content=[\"']Squarespace", re.I)),
    (WOOCOMMERCE, re.compile(r"wp-content/plugins/woocommerce|\bwoocommerce\b|wp-content/|wp-includes/", re.I)),
)


def recognise(html: str) -> str:
    """The platform the page was made with (one of PLATFORMS); HTML when none is recognised."""
    for platform, signs in _SIGNS:
        if signs.search(html or ""):
            return platform
    return HTML


# Where each kind of change goes, per platform. "head" is code every page (or this page)
# carries in its <head>; "title" and "description" are the page's search listing; "alt" an
# image's description; "size" an image's width and height; "https" an address to rewrite.
_WHERE = {
    SHOPIFY: {
        "title": "In your Shopify admin, open the product or page (for the home page: Online Store > Preferences), "
                 "then \"Edit website SEO\" under \"Search engine listing\": put the new page title there.",
        "description": "In your Shopify admin, open the product or page (for the home page: Online Store > "
                       "Preferences), then \"Edit website SEO\": put the new meta description there.",
        "alt": "In your Shopify admin, open the product, click the picture and choose \"Add alt text\".",
        "head": "In your Shopify admin, Online Store > Themes > the three dots > Edit code: open theme.liquid "
                "and paste it just above </head>.",
        "size": "In your Shopify admin, Online Store > Themes > Edit code: in the section that shows the picture, "
                "add the width and height to its <img> tag.",
        "https": "In your Shopify admin, where you entered the address (a section's settings in the theme "
                 "editor, or Edit code), start it with https:// instead of http://.",
    },
    WOOCOMMERCE: {
        "title": "In WordPress, edit the product or page and fill the SEO title of your SEO plugin (Yoast SEO or "
                 "Rank Math) below the editor; without such a plugin, install one first.",
        "description": "In WordPress, edit the product or page and fill the meta description of your SEO plugin "
                       "(Yoast SEO or Rank Math) below the editor.",
        "alt": "In WordPress, Media > Library: open the picture and fill \"Alternative Text\".",
        "head": "In WordPress, add it to the page's head with a header code plugin (such as WPCode: Code "
                "Snippets > Header & Footer), or in your child theme's header.php just above </head>.",
        "size": "In WordPress, edit the page, select the picture and insert it again from the Media Library: "
                "WordPress then writes its width and height.",
        "https": "In WordPress, Settings > General: start both addresses with https://, then edit the page where "
                 "it names the http:// address.",
    },
    WIX: {
        "title": "In the Wix editor, Pages & Menu > the page's three dots > SEO basics: put the new title in "
                 "\"Title tag\".",
        "description": "In the Wix editor, Pages & Menu > the page's three dots > SEO basics: put it in "
                       "\"Meta description\".",
        "alt": "In the Wix editor, click the picture > Settings: describe it in \"What's in the image?\".",
        "head": "In the Wix editor, Pages & Menu > the page's three dots > SEO basics > Advanced SEO: structured "
                "data goes in \"Structured data markup\", other tags in \"Additional tags\".",
        "size": "Wix sizes its pictures itself: in the Wix editor, replace the picture, and Wix writes its size.",
        "https": "In the Wix editor, open the element that names the address and start it with https://.",
    },
    SQUARESPACE: {
        "title": "In Squarespace, Pages > the page's gear icon > SEO: put the new title in \"SEO title\".",
        "description": "In Squarespace, Pages > the page's gear icon > SEO: put it in \"SEO description\".",
        "alt": "In Squarespace, edit the image block and fill its alt text (the image's description field).",
        "head": "In Squarespace, Pages > the page's gear icon > Advanced > Page Header Code Injection: paste it "
                "there (for every page: Settings > Developer Tools > Code Injection > Header).",
        "size": "Squarespace sizes its pictures itself: in the editor, replace the picture, and Squarespace "
                "writes its size.",
        "https": "In Squarespace, edit the block that names the address and start it with https://.",
    },
    HTML: {
        "title": "In the page's HTML file, put it in place of the <title> tag.",
        "description": "In the page's HTML file, put it in place of the <meta name=\"description\"> tag, or inside "
                       "<head> if there is none.",
        "alt": "In the page's HTML file, put it in place of the <img> tag it names.",
        "head": "In the page's HTML file, paste it inside <head>, just above </head>.",
        "size": "In the page's HTML file, put it in place of the <img> tag it names.",
        "https": "In the page's HTML file, put it in place of the tag it names.",
    },
}

# Which kind of change each repaired check is (services/fix/repairs.py REPAIRS).
_CHANGE = {"title": "title", "meta_description": "description", "image_alt": "alt", "product_data": "head",
           "canonical": "head", "open_graph": "head", "viewport": "head", "image_size": "size",
           "mixed_content": "https"}


def how(platform: str, check: str) -> str | None:
    """Where, on `platform`, the repair of `check` goes, in a founder's words; None for a check
    with no repair."""
    change = _CHANGE.get(check)
    return _WHERE.get(platform, _WHERE[HTML])[change] if change else None
