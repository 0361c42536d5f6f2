"""A reader's own short text for the retrain journey: a story of a few paragraphs, under 10 KB,
UTF-8 with a few characters beyond ASCII, with none of the shipped books' names in it and not
one «said», so that any sentence a page borrows from another model shows up as foreign."""

STORY = """\
The Lighthouse at Kęsowo

On the northern cape, where the road gives up and the dunes begin, there stood a lighthouse that
nobody needed any more. The ships had radar now, and the harbour at Kęsowo had silted up long ago.
Still, every evening at seven, Marek climbed the hundred and twelve steps and lit the lamp.

His granddaughter Zofia came to stay with him in the summer she turned eleven. She brought a
suitcase, a jar of pickled plums, and a notebook in which she meant to write down everything
that was strange about the coast. By the second day the notebook had a list on its first page.

The wind never stops. The gulls know my name. Grandfather talks to the lamp.

Marek did talk to the lamp. He told it the weather, the price of bread in the village, and the
names of the boats that still went out for herring. When Zofia asked him why, he shrugged and
wiped the brass rail with his sleeve. A light that burns for no one, he explained, must at least
hear some news. Otherwise it forgets what it is for.

Zofia thought this was the silliest thing she had ever heard, and she wrote it down twice.

The village itself was four streets and a church with a green onion dome. There was a shop that
sold nails, stamps, bread and fishing line, and a bench outside it where old men argued about
football until the light went. Zofia bought a postcard there on her first Saturday and sent it
to her mother in Łódź: Grandfather is well. The sea is enormous. Please send more plums.

In the mornings they walked along the beach to collect what the sea had left. There were green
bottles, a boot with no partner, ropes of every colour, and once a wooden sign that read CAFÉ
ZORZA in faded blue letters. Marek nailed the sign above the door of the shed. Now we have a
café, he announced, and he made two cups of tea so strong that the spoon nearly stood up in them.

In the afternoons Zofia read on the gallery while Marek mended nets he would never use. The
keeper before him had left a shelf of books in the watch room: a guide to knots, an atlas with
half the countries renamed, and a logbook that went back to 1931. Zofia read the logbook from
the first page. Fog. Fog. A schooner from Riga, late. Fog. Lamp cleaned. Storm from the west,
glass broken in the lantern, replaced by noon. She copied the best lines into her notebook.

One evening in August the power failed in the whole district. The village went dark, the farms
went dark, and the long road to the town was only a grey ribbon under the clouds. Marek did not
hurry. He took the old paraffin lamp from its hook, trimmed the wick, and carried it up the
hundred and twelve steps with Zofia behind him holding the matches.

The paraffin flame was small, but the lens was large and patient. It gathered the little light
and threw it across the water in a beam as wide as a barn. Zofia stood at the glass and watched
the beam sweep the sea, once every twelve seconds, the way it had swept it for ninety years.

Far out, something answered. A small white light blinked, then blinked again. Marek lifted his
binoculars and was quiet for a long time. It was the Wanda, the last herring boat, whose engine
had died at dusk and whose radio had died with the power. Her skipper had no compass worth the
name and had been drifting toward the shoals north of the cape.

Now he had a light. The Wanda turned, slowly, and began to row.

It took the crew three hours to reach the harbour mouth. Marek kept the lamp burning the whole
time and talked to it without stopping: about the tide, about the Wanda's leaking stern, about
the skipper's mother who baked the best poppy-seed cake in the district. Zofia did not laugh at
him now. She fed the wick and wiped the soot from the glass and counted the twelve seconds under
her breath, over and over, until the counting felt like a kind of song.

When the boat was safe at last, the whole village came down to the quay with candles. The
skipper climbed the hundred and twelve steps, out of breath, and shook Marek's hand and then
Zofia's hand, very formally, as if she were the keeper and not a girl with soot on her nose.
He had brought a whole poppy-seed cake. They ate it on the gallery at two in the morning while
the wind pulled at their sleeves and the beam went round and round above their heads.

The power came back the next afternoon. Nobody from the town ever wrote about the night of the
Wanda, and the lighthouse stayed on the list of buildings that were to be closed. But the
skipper's mother sent a cake every Sunday until the end of the summer, and the gulls, Zofia was
almost sure, learned to say her name a little more clearly.

On her last evening she climbed the steps alone and lit the lamp herself. Then, feeling a little
foolish, she told it the news: that she was going home, that school began on Monday, that the
Wanda had a new engine, and that she would come back next year. The lamp burned steadily. It
seemed to her that it was listening.

She wrote one more line in the notebook before she closed it. A light that burns for no one
still burns for someone; you only have to wait for the night when they need it.

The next summer the lighthouse was still there. So was Marek, a little slower on the stairs.
Zofia carried the matches again, and the first thing she did was to tell the lamp everything
that had happened while she was away, from the first frost to the last day of school.
"""
